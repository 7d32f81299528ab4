"""Changes that wait for the owner: the queue (`store`). Deciding on them is `trinho.review`."""
