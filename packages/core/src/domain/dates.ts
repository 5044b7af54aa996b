/**
 * Whether a date is one every store holds and JavaScript prints as ISO 8601 with four digits: the
 * years 1 to 9999 (PostgreSQL reads no year 0, and years past 9999 need a sign). Outside them
 * capture falls back as PostHog's does, and the API refuses the date.
 */
export const isStorableDate = (date: Date): boolean => {
  const year = date.getUTCFullYear()
  return !Number.isNaN(year) && year >= 1 && year <= 9999
}
