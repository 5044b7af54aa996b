/** The PostgreSQL server tests run against (this machine's, trust auth). */
export const TEST_SERVER_URL = process.env["ZED_TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
