/** The interface revision this build implements (spec: Versioning). Sent as `apiVersion` in events and as the API-Version header. */
export const API_REVISION = '1.16';
