"""The condensation's pure rules: the gate, matching, the edit script, screening, held changes, the
archive plan, the report."""
