"""Suite-wide settings: property tests are derandomized so every run checks the same examples."""

from hypothesis import settings

settings.register_profile("lcel_agent", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("lcel_agent")
