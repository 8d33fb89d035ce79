import os

os._exit(0)


def target_os_exit_at_import():
    return None
