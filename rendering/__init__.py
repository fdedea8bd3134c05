"""rendering package."""
