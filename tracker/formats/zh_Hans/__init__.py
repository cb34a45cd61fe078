"""Django number and date formats for simplified Chinese."""
