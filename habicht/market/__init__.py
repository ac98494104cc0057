"""What habicht has learnt about adverts, whoever watches them: listings and their price
history, the going price and its trend, places, and reposts."""
