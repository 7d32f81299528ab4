"""The review page in the browser: `trinho web`."""
