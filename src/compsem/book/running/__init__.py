"""Running chapters: the runner, its run folders, typed parameters, the planner, prefetch and the staged book."""
