"""book/using.md: the reference for running the study (targets, reruns, models, caches, launches);
it describes the tools, and states no result."""

NOT_CLAIMS: dict[str, str] = {}
