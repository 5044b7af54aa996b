/** Kept equal to package.json's version (a test checks); reported by the API schema. */
export const VERSION = "0.1.0"
