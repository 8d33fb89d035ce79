def target_broken(:
    return None
