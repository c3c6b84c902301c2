"""Developer tools: screenshots of the pages, and the browser helpers the page tests share."""
