"""The CLI's commands, one module per group, imported when one runs (`trinho.cli.app.COMMANDS`)."""
