"""Real-model zoo for the accuracy benchmark: see record.py and run_all.py."""
