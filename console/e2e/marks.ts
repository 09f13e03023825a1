// What the browser tests read of the console's performance marks.

/**
 * The browser's time from the last click on "Next page" to that page's
 * rows standing on the screen, by the marks the list page sets. Passed to
 * page.evaluate, so it must use nothing from outside itself.
 */
export const nextPageTime = (): number => {
  const last = (name: string) => performance.getEntriesByName(name).at(-1)?.startTime ?? NaN;
  return last("records:list-ready") - last("records:next-page");
};
