"""Serving a whole class: several app processes (replicas) behind HAProxy on one machine, and the same for a
cluster (Dockerfile, deploy/k8s/); a load test that speaks Streamlit's websocket protocol.

  local.py      up / down / status / drain / ready / restart (python -m serve ...), a state file in runs/serve/
  replicas.py   one `streamlit run app.py`: start, health, warm-up, stop, memory
  balancer.py   haproxy.cfg (sticky cookie, health checks, limits) and HAProxy's runtime API
  limits.py     the bounds the balancer enforces, read from the app's own
  wire.py       a Streamlit client on the websocket (protobuf BackMsg / ForwardMsg)
  load.py       one student on the wire, and what it checks: latency, errors, crosstalk, reconnection
  ramp.py       the class's schedule: warm-up, levels of students, memory and CPU read, a replica killed
  store.py      the class's answer store beside the replicas: Debian's redis-server, append-only, fsync always
  class_load.py a class answering on the wire: students on the class page, acknowledgements, lost answers

Imports the app's protobufs (streamlit.proto), websockets and redis, the app's runtime settings it sets on replicas
(runtime.first_view.LIGHT_ENV) and the class store (classstore); never the app's pages or the model."""
