// zod/mini, with zod's own English wording ("Invalid input: expected string, received number") for the
// messages tfgate passes on as zod words them: a service 400 names the body field and zod's message; the
// CDKTF aspect's options, a bundle's manifest and the client's flags report theirs; a policy output of the
// wrong shape is described by its zod error. zod/mini sets no locale, and without one every such message reads
// "Invalid input". Every module takes z from here (a dependency rule holds it), so none can load a schema
// without the wording; a locale set before this module loads wins, as with classic zod.
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

if (z.config().localeError === undefined) z.config(en());

export * from 'zod/mini';
