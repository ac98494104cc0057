"""What a watch wants and what its chat is told: subscriptions, the filter's rules, the
diff between two reads, the notes an alert carries, and the preview of a filter."""
