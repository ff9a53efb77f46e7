"""lcel_agent."""
