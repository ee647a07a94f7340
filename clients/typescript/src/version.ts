/** The client's version (package.json's; a test checks they agree). */
export const VERSION = "0.1.0";
