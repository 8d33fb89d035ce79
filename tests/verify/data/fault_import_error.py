raise RuntimeError("boom at import")


def target_never_runs():
    return None
