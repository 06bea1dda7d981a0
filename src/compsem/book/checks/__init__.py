"""Checking pages: prose, rendering, glue, claims, the browser pass and every shown command (driven by compsem.book.checkbook)."""
