// The physical tables ZedQL reads on ClickHouse: the same names and columns as on Postgres (the
// resolver's field mappings hold for both), with ClickHouse types. Events are append-only; the
// others are versioned rows (ReplacingMergeTree): a change is a new row with a higher version, a
// deletion a row marked deleted, and every read keeps each key's latest row, never with FINAL.
// The schema (`@zed/clickhouse`) is made from these, so printer and tables cannot disagree.

export interface ClickHouseColumn {
  readonly name: string
  /** The ClickHouse type; date-times are stored in UTC and shown in the project's zone. */
  readonly type: string
}

export interface ClickHouseTable {
  readonly name: string
  readonly columns: ReadonlyArray<ClickHouseColumn>
  /** The sorting key (after `project_id`), which is also what identifies a row's versions. */
  readonly orderBy: ReadonlyArray<string>
  /** Versioned tables: the key whose latest version is the row, the version and deletion columns. */
  readonly versioned?: {
    readonly key: ReadonlyArray<string>
    readonly version: string
    readonly deleted: string | null
  }
  readonly partitionBy?: string
  /** Stable sharding key on a cluster: a key's rows stay on one shard. */
  readonly shardBy: string
}

export const DATETIME = "DateTime64(6, 'UTC')"
const col = (name: string, type: string): ClickHouseColumn => ({ name, type })
const int = (name: string) => col(name, "Int64")
const version = [col("version", "UInt64"), col("is_deleted", "UInt8")]

export const CLICKHOUSE_TABLES: ReadonlyArray<ClickHouseTable> = [
  {
    name: "events",
    columns: [
      int("project_id"),
      col("uuid", "UUID"),
      col("event", "String"),
      col("distinct_id", "String"),
      col("person_id", "UUID"),
      col("properties", "String CODEC(ZSTD(3))"),
      col("timestamp", DATETIME),
      col("created_at", DATETIME),
      ...[0, 1, 2, 3, 4].map((i) => col(`group_${i}`, "Nullable(String)")),
      // Newest copy wins when a retried event is merged away (ReplacingMergeTree's version).
      col("inserted_at", `${DATETIME} DEFAULT now64(6)`)
    ],
    // A retried event repeats every one of these, so merges collapse its copies.
    orderBy: ["toDate(timestamp)", "event", "cityHash64(distinct_id)", "cityHash64(uuid)"],
    partitionBy: "toYYYYMM(timestamp)",
    shardBy: "cityHash64(distinct_id)"
  },
  {
    name: "persons",
    columns: [
      int("project_id"),
      int("id"),
      col("uuid", "UUID"),
      col("properties", "String"),
      col("is_identified", "Bool"),
      col("created_at", DATETIME),
      ...version
    ],
    orderBy: ["id"],
    versioned: { key: ["id"], version: "version", deleted: "is_deleted" },
    shardBy: "id"
  },
  {
    name: "person_distinct_ids",
    columns: [int("project_id"), col("distinct_id", "String"), int("person_id"), ...version],
    orderBy: ["distinct_id"],
    versioned: { key: ["distinct_id"], version: "version", deleted: "is_deleted" },
    shardBy: "cityHash64(distinct_id)"
  },
  {
    name: "groups",
    columns: [
      int("project_id"),
      int("group_type_index"),
      col("group_key", "String"),
      col("properties", "String"),
      col("created_at", DATETIME),
      col("version", "UInt64")
    ],
    orderBy: ["group_type_index", "group_key"],
    versioned: { key: ["group_type_index", "group_key"], version: "version", deleted: null },
    shardBy: "cityHash64(group_key)"
  },
  {
    name: "session_recordings",
    columns: [
      int("project_id"),
      col("session_id", "String"),
      col("distinct_id", "String"),
      col("start_time", DATETIME),
      col("end_time", DATETIME),
      col("first_url", "Nullable(String)"),
      ...[
        "click_count",
        "keypress_count",
        "mouse_activity_count",
        "active_ms",
        "console_log_count",
        "console_warn_count",
        "console_error_count",
        "size",
        "event_count",
        "message_count"
      ].map(int),
      col("snapshot_source", "String"),
      ...version
    ],
    orderBy: ["session_id"],
    versioned: { key: ["session_id"], version: "version", deleted: "is_deleted" },
    shardBy: "cityHash64(session_id)"
  }
]

export const clickhouseTable = (name: string): ClickHouseTable | undefined =>
  CLICKHOUSE_TABLES.find((t) => t.name === name)
