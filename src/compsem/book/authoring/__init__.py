"""Authoring: the new-study scaffold and the files it writes."""
