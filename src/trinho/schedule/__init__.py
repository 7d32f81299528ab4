"""Scheduled work: when it is due (`plan`, pure), its run state and one pass (`run`), and what each
job does (`jobs`)."""
