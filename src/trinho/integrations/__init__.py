"""trinho behind other memory interfaces: Claude's memory tool (`trinho.integrations.anthropic`,
extra `[anthropic]`) over the same rules as trinho's own tools (`trinho.integrations.store`),
and OpenClaw's own file tools writing MEMORY.md (`trinho.integrations.files`)."""
