// Crockford base32, lowercase: no i, l, o, u, so ids survive being read aloud or retyped.
// The alphabet of every id (db/ids.ts makes them; core/paging.ts checks cursors against it).
export const ID_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
