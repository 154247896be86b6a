"""The analysis: pure, sans-IO. Fed capture records, it says what each line is,
which exchange it belongs to, and what is wrong with it."""
