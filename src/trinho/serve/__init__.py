"""`trinho serve`: the service (`service`) and stop signals (`signals`)."""
