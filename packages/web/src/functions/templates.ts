// Starting points for new functions: code, inputs and filters to edit before saving.

export interface InputSchema {
  readonly key: string
  readonly type: "string" | "number" | "boolean" | "dictionary" | "choice" | "json" | "email"
  readonly label?: string
  readonly description?: string
  readonly required?: boolean
  readonly default?: unknown
  readonly secret?: boolean
  readonly choices?: ReadonlyArray<{ readonly label: string; readonly value: string }>
}

export interface Template {
  readonly id: string
  readonly type: "transformation" | "destination"
  readonly name: string
  readonly description: string
  readonly code: string
  readonly inputs_schema: ReadonlyArray<InputSchema>
}

export const TEMPLATES: ReadonlyArray<Template> = [
  {
    id: "blank-transformation",
    type: "transformation",
    name: "Blank transformation",
    description: "Returns the event unchanged: write your own.",
    code: "// Change the event and return it, or return null to drop it.\nlet e := event\nreturn e",
    inputs_schema: []
  },
  {
    id: "add-property",
    type: "transformation",
    name: "Add a property",
    description: "Sets a property on every event, from a template such as {event.properties.plan}.",
    code: "let e := event\ne.properties[inputs.key] := inputs.value\nreturn e",
    inputs_schema: [
      { key: "key", type: "string", label: "Property name", required: true },
      { key: "value", type: "string", label: "Value", required: true }
    ]
  },
  {
    id: "remove-property",
    type: "transformation",
    name: "Remove a property",
    description: "Removes one property from every event.",
    code: "let e := event\nlet kept := {}\nfor (let key, value in e.properties) {\n  if (key != inputs.key) {\n    kept[key] := value\n  }\n}\ne.properties := kept\nreturn e",
    inputs_schema: [{ key: "key", type: "string", label: "Property name", required: true }]
  },
  {
    id: "drop-events",
    type: "transformation",
    name: "Drop events",
    description: "Drops the events its filters select.",
    code: "return null",
    inputs_schema: []
  },
  {
    id: "blank-destination",
    type: "destination",
    name: "Blank destination",
    description: "Runs after the event is stored: write your own.",
    code: "print(f'event {event.event} from {event.distinct_id}')",
    inputs_schema: []
  },
  {
    id: "webhook",
    type: "destination",
    name: "Webhook",
    description: "POSTs each event as JSON to a URL.",
    code: "let response := fetch(inputs.url, {'method': 'POST', 'body': {'event': event, 'person': person}})\nprint(f'sent: {response.status}')",
    inputs_schema: [{ key: "url", type: "string", label: "Webhook URL", required: true }]
  }
]
