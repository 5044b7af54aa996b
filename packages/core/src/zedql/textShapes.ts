// What text has to look like to convert to a number, date, date-time or uuid, as ZedQL's toX
// functions read it (anything else converts to NULL). Every dialect tests text against these.

export const NUMBER_TEXT = "^\\s*[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?\\s*$"
export const INTEGER_TEXT = "^\\s*[-+]?[0-9]+\\s*$"
export const DATE_TEXT = "^\\s*[0-9]{4}-[0-9]{2}-[0-9]{2}"
export const DATETIME_TEXT =
  "^\\s*[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]+)?)?)?\\s*(Z|[+-][0-9]{2}(:?[0-9]{2})?)?\\s*$"
export const EPOCH_TEXT = "^\\s*[0-9]{9,10}(\\.[0-9]+)?\\s*$"
/** The same shapes without surrounding spaces, to recognize constants. */
export const PLAIN_DATE = new RegExp(DATE_TEXT.replaceAll("\\s*", ""))
export const PLAIN_DATETIME = new RegExp(DATETIME_TEXT.replaceAll("\\s*", ""))
export const UUID_TEXT = "^\\s*[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}\\s*$"
