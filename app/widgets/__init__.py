"""Small reusable Qt widgets."""
