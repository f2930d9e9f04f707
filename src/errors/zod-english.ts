// zod's own English wording ("Invalid input: expected string, received number"), for the messages tfgate
// passes on as zod words them: a service 400 names the body field and zod's message; the CDKTF aspect's
// options, a bundle's manifest and the client's flags report theirs; a policy output of the wrong shape is
// described by its zod error. Classic zod set English on its first schema; zod/mini sets no locale, and
// without one every such message reads "Invalid input". Imported for its effect by each module that passes
// zod's wording on (parseOptions words every issue itself); a locale set before it wins, as with classic zod.
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

if (z.config().localeError === undefined) z.config(en());
