"""`python -m mindseed.msrun ...`: MindSpore's msrun launcher (see `mindseed.parallel.cluster.run`)."""
from mindseed.parallel.cluster.run import main

if __name__ == "__main__":
    main()
