"""The terminal client for people: ``leastscore play``. Nothing imports it."""
