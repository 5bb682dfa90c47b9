"""``python -m lambda_cu.fusion``: print the table of fusion rewrite rules (``rewrite.RULES``)."""
from .rewrite import table_text

print(table_text())
