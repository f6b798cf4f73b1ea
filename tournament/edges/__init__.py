"""What people touch: the ``tournament`` command, staged contests, the live display and
the web view. Nothing below imports these."""
