"""The owner reviewing proposals: how they read (`render`, pure), who applies an approved one
(`appliers`), decisions from a channel (`service`) and the daily announcement of those nobody
announced (`announce`)."""
