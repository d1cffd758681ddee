/** Absolute path of the built console (index.html and hashed assets), ending with a slash. */
export declare const consoleRoot: string;
