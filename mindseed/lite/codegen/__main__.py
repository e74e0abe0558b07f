"""`python -m mindseed.lite.codegen model.mindir -o out/`: see mindseed.lite.codegen."""
import sys

from mindseed.lite.codegen import main

sys.exit(main())
