"""Obsidian vault sync: parse notes, scan the vault, feed memory, watch for changes."""
