"""`python -m mindseed.converter model.onnx -o out/`: see mindseed.converter."""
import sys

from mindseed.converter import main

sys.exit(main())
