"""Widgets the panes are made of: a Line-API row list and text view, and how they grow."""
