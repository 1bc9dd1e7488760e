/** Rows per page of a custom view's table (the page and its loader agree on it). */
export const VIEW_PAGE_SIZE = 50
