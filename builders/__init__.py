"""One package per benchmark, installed as ``longbench_suite.builders.<name>``."""
