"""What config.json says the model holds (specs -> expectation) against what is stored: findings and the ledger."""
