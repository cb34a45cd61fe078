"""The crawler: fetches target sites politely and safely, stores their pages, matches them with the
registered works. Library modules need no Django; tasks, scans, matching and the commands do."""
