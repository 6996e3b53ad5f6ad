"""Dataset-card templates, one ``<benchmark>.md`` per benchmark (see CONTRIBUTING.md, "Dataset cards")."""
