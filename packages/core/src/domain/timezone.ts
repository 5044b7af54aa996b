const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+\-]*(\/[A-Za-z0-9_+\-]+)*$/

/** Whether `name` is an IANA time zone this runtime knows (offset strings such as "+01:00" are not zones). */
export const isTimeZone = (name: string): boolean => {
  if (!IANA_NAME.test(name)) return false
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name })
    return true
  } catch {
    return false
  }
}
