"""Django number and date formats for English."""
