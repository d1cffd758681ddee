# The README's curl walk-through, against `npm start` on its defaults (run from the repository root).
# test/rest/walkthrough.test.ts runs exactly these lines against a real all-in-one server.

# A token for workspace "demo" (all scopes, valid 1 h), signed with the secret npm start keeps in ./data
TOKEN=$(npm run -s token -- --workspace demo)

# Create a route: 201 Created, Location: /v1/routing/rt_…
curl -si -X POST http://127.0.0.1:8080/v1/routing \
  -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"method":"GET","path":"/users/:id","middleware":["auth"],"handler":"getUser"}'; echo

# Create another and keep its Location, then read it back
ROUTE=$(curl -s -o /dev/null -w '%header{location}' -X POST http://127.0.0.1:8080/v1/routing \
  -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"method":"POST","path":"/users","handler":"createUser"}')
curl -s http://127.0.0.1:8080$ROUTE -H "Authorization: Bearer $TOKEN"; echo

# Which route handles GET /users/42, and with which params?
curl -s 'http://127.0.0.1:8080/v1/routing:match?method=GET&path=/users/42' -H "Authorization: Bearer $TOKEN"; echo

# Upload a file with a label: 201 Created, the asset with its sniffed type, size, url, sha256, width, height
curl -s -X POST http://127.0.0.1:8080/v1/assets/upload -H "Authorization: Bearer $TOKEN" \
  -F label=logo -F file=@test/fixtures/image.png; echo

# Upload another and keep its Location; read it back; pick its public url
ASSET=$(curl -s -o /dev/null -w '%header{location}' -X POST http://127.0.0.1:8080/v1/assets/upload \
  -H "Authorization: Bearer $TOKEN" -F file=@test/fixtures/notes.txt)
curl -s http://127.0.0.1:8080$ASSET -H "Authorization: Bearer $TOKEN"; echo
URL=$(curl -s http://127.0.0.1:8080$ASSET -H "Authorization: Bearer $TOKEN" | sed -E 's/.*"url":"([^"]*)".*/\1/')

# The file itself: public, cacheable for good, with ranges
curl -sI $URL
curl -s -H 'Range: bytes=0-9' $URL; echo

# Replace the file: same id, new type, size, url and uploadedAt; the old url is gone
curl -s -X POST http://127.0.0.1:8080$ASSET/replace -H "Authorization: Bearer $TOKEN" -F file=@test/fixtures/document.pdf; echo
curl -s -o /dev/null -w '%{http_code}\n' $URL

# Errors are JSON with Connect codes: 401 without a token, 400 for a malformed id, 404 for an unknown one
curl -s http://127.0.0.1:8080$ASSET; echo
curl -s http://127.0.0.1:8080/v1/assets/nope -H "Authorization: Bearer $TOKEN"; echo
curl -s http://127.0.0.1:8080/v1/assets/as_00000000000000000000000000 -H "Authorization: Bearer $TOKEN"; echo

# Readiness and the API description
curl -s http://127.0.0.1:8080/healthz; echo
curl -s http://127.0.0.1:8080/v1/openapi.json | grep -o '"openapi":"[^"]*"'
