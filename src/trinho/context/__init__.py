"""The prompt: its assembly (`assembly`, pure), the token estimate every budget uses (`budget`,
pure) and reading the workspace for it (`run`)."""
