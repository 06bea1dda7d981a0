"""The pages that describe the build: the reproducibility appendix, the benchmark, the machine, the paper-scale estimates."""
