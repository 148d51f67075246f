"""Scene: object meshes (files or the built-in cube) and how they rest on the table."""
