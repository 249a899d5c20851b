#!/usr/bin/env python3
"""Keeps the README a newcomer's page and the teacher's kit whole and in one Spanish.

- README.md's first 60 lines (one screen and a bit) hold the way from nothing to the lesson's
  step 1: `bash .ci/up`, the container one-liner, the page's address and a link to the
  lesson's step 1 whose anchor is a real heading of docs/lesson.md.
- Every scenario in scenarios/ is named in the README; the test command `bash .ci/test` is
  stated; docs/development.md holds the maintainers' material and is linked.
- The README links the pages that hold its reference (docs/reference.md, dashboard.md,
  retry-storms.md, shedding.md, grafana.md, running.md, classroom.md, replicas.md).
- Every relative link of README.md, docs/*.md and docs/clase/ points at a file that exists (and,
  for a Markdown file with an anchor, at a heading it has).
- Every line of README.md and docs/*.md that starts the class's lab with the teacher's token is
  one of docs/clase/plan.md's start lines, which leave --open-duration-s and --workers alone.
- Every package .ci/install-deps installs is in the dependency table (house rule: say why
  each dependency is there).
- docs/clase/ holds plan.md, hoja.md, respuestas.md and problemas.md, in Spanish: no line of
  prose that reads as English, none of the words the glossary forbids, one results heading.
- docs/lessons/: every lesson has its twin (NAME.md, NAME.en.md) and the two indexes link both;
  every relative link points at what exists; the Spanish ones read in one Spanish, as the
  teacher's kit does, with one term per overload concept (the answers' own: limitación
  adaptativa, límite adaptativo de concurrencia, mamparo, llamada de cobertura, reintento
  adaptativo), the English name only as the gloss of its first use, "mamparo (bulkhead)"; and
  the load's as the page says them: carga abierta / carga cerrada, respuestas útiles (goodput),
  descarte de carga, disparador.
Usage: test_readme.py <source dir>"""
import json
import pathlib
import re
import sys
import unicodedata

ROOT = pathlib.Path(sys.argv[1])
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def slug(heading):
    """GitHub's anchor for a Markdown heading: lower case, punctuation dropped (letters,
    digits, `-`, `_` and spaces kept), each space a `-`."""
    text = re.sub(r"`|\*|\[|\]\([^)]*\)", "", heading.strip().lower())
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def headings(path):
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"^[ \t]*```.*?^[ \t]*```", "", text, flags=re.S | re.M)
    return [m.group(2) for m in re.finditer(r"^(#{1,6})\s+(.*)$", text, re.M)]


def links(text):
    """(target, anchor) of every Markdown link that is not a web address."""
    text = re.sub(r"^[ \t]*```.*?^[ \t]*```", "", text, flags=re.S | re.M)
    out = []
    for m in re.finditer(r"\]\(([^)\s]+)\)", text):
        target = m.group(1)
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        out.append((path, anchor))
    return out


def check_links(doc):
    base = doc.parent
    for path, anchor in links(doc.read_text(encoding="utf-8")):
        target = (base / path) if path else doc
        rel = f"{doc.relative_to(ROOT)} → {path or ''}{'#' + anchor if anchor else ''}"
        if not target.exists():
            check(False, f"link points at a file that exists: {rel}")
            continue
        if anchor and target.suffix == ".md":
            check(anchor in {slug(h) for h in headings(target)}, f"link's anchor is a heading: {rel}")


def prose_lines(text):
    """The lines a reader reads as sentences: fenced code, inline code, link targets, HTML
    comments and table rules removed."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"^[ \t]*```.*?^[ \t]*```", "", text, flags=re.S | re.M)
    for line in text.splitlines():
        line = re.sub(r"`[^`]*`", " ", line)
        line = re.sub(r"\]\([^)]*\)", "]", line)
        line = re.sub(r"https?://\S+", " ", line)
        if line.strip() and not re.fullmatch(r"[\s|:-]*", line):
            yield line


# Words that only English uses among the documents' words: two of them in one line of prose
# make an English sentence (Spanish lines share none of them).
ENGLISH = {"the", "and", "is", "are", "of", "with", "when", "what", "you", "your", "this", "that",
           "it", "to", "for", "from", "will", "be", "not", "does", "which", "then", "there", "an"}
# The glossary's one Spanish: the breaker is "disyuntor", a short circuit is "rechazo", the
# policy names stay in code font.
FORBIDDEN = ["circuito", "cortocircuito", "cortacircuitos", "breaker", "resiliente", "observa:",
             "observarás:", "saturado"]


# The overload concepts' English names and the Spanish synonyms the lessons do not use: the
# lab's answers (lab/api/quote_sentences.cpp) say each in one term, and so do the lessons.
OVERLOAD_FORBIDDEN = ["throttling", "estrangulamiento", "bulkhead", "hedging", "hedge", "hedged",
                      "cobertura especulativa", "solicitud de cobertura", "petición de cobertura",
                      "concurrencia adaptativa", "límite de concurrencia adaptativo", "reintento adaptable",
                      "adaptive retry", "adaptive throttling", "concurrency limit",
                      # the page's storm form: carga abierta / cerrada, respuestas útiles
                      "goodput", "rendimiento útil", "caudal útil", "bucle abierto", "bucle cerrado",
                      "lazo abierto", "lazo cerrado", "open loop", "closed loop", "load shedding",
                      "desprendimiento de carga", "gatillo", "detonante"]


def spanish_problems(doc, extra_forbidden=()):
    """(English lines, forbidden words) of a Spanish document's prose."""
    lines = list(prose_lines(doc.read_text(encoding="utf-8")))
    english = [l.strip() for l in lines if len({w for w in re.findall(r"[a-z']+", l.lower())} & ENGLISH) >= 2]
    # The glossary gives the English term once, in parentheses, beside the Spanish one.
    prose = re.sub(r"\((?:en inglés, )?circuit breaker\)", "", "\n".join(lines).lower())
    prose = prose.replace("mamparo (bulkhead)", "mamparo")
    prose = re.sub(r"\[[\w.-]+\.md\]", " ", prose)  # a link named by its file (the twin's)
    bad = [w for w in FORBIDDEN + list(extra_forbidden) if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", prose)]
    return english, bad


def main():
    readme_path = ROOT / "README.md"
    readme = readme_path.read_text(encoding="utf-8")
    head = "\n".join(readme.splitlines()[:60])

    # --- the newcomer's first screen
    check(re.search(r"^bash \.ci/up\s*$", head, re.M) is not None,
          "README's first 60 lines: the start command `bash .ci/up` on a line of its own")
    check("http://127.0.0.1:8080" in head, "README's first 60 lines: the page's address http://127.0.0.1:8080")
    check(re.search(r"^podman build -t (\S+) \. && podman run --rm -p 127\.0\.0\.1:8080:8080 \1\s*$", head, re.M)
          is not None, "README's first 60 lines: the one-line container run (build and run the same image, "
          "published on 127.0.0.1:8080)")
    lesson = ROOT / "docs" / "lesson.md"
    step1 = [h for h in headings(lesson) if re.match(r"paso 1\b", h, re.I)]
    step1_slugs = {slug(h) for h in step1}
    linked = {anchor for path, anchor in links(head) if path == "docs/lesson.md"}
    check(bool(step1), f"docs/lesson.md has a heading for step 1 ({step1})")
    check(bool(linked & step1_slugs),
          f"README's first 60 lines link to the lesson's step 1 (links: {sorted(linked)}, step 1: {sorted(step1_slugs)})")
    check(re.search(r"\$LAB/\S*lab=\$YO-paso1", head) is not None,
          "README's first 60 lines: a lesson line with $LAB and lab=$YO-paso1, as the lesson writes it")

    # --- scenarios, the test command, the maintainers' page
    names = sorted(json.loads(f.read_text(encoding="utf-8"))["name"] for f in (ROOT / "scenarios").glob("*.json"))
    check(len(names) == 20, f"scenarios/ holds 20 scenarios ({len(names)})")
    missing = [n for n in names if f"`{n}`" not in readme]
    check(not missing, f"README names every scenario (missing: {missing})")
    check(f"The {len(names)} scenarios" in readme, f"README's scenario heading says {len(names)}")
    check(re.search(r"(?<!first )\bfive scenarios\b", readme) is None, "README never says the lab plays five scenarios")
    check("`bash .ci/test`" in readme, "README states the test command `bash .ci/test`")
    dev = ROOT / "docs" / "development.md"
    check(dev.exists() and "docs/development.md" in readme, "README links docs/development.md")
    devtext = dev.read_text(encoding="utf-8") if dev.exists() else ""
    for fact in ("bash .ci/test", "ctest -L fast", ".ci/run", "check-contract", "fresh-machine"):
        check(fact in devtext, f"docs/development.md covers `{fact}`")

    # --- the reference the README links, one line each
    for page in ("reference", "dashboard", "retry-storms", "shedding", "grafana", "running", "classroom", "replicas"):
        target = f"docs/{page}.md"
        check((ROOT / target).exists() and any(path == target for path, _ in links(readme)),
              f"README links {target}")

    # --- the dependency table names every package .ci/install-deps installs
    deps = (ROOT / ".ci" / "install-deps").read_text(encoding="utf-8")
    code = "\n".join(line.split("#", 1)[0] for line in deps.splitlines())  # comments say why, in parentheses too
    packages = {p for block in re.findall(r"packages\+?=\((.*?)\)", code, re.S) for p in block.split()}
    table = devtext.split("## Dependencies", 1)[-1]
    untold = sorted(p for p in packages if f"`{p}`" not in table)
    check(not untold, f"docs/development.md's dependency table says why each package is there (missing: {untold})")

    # --- links
    docs = sorted((ROOT / "docs").glob("*.md"))
    for doc in [readme_path] + docs + sorted((ROOT / "docs" / "clase").glob("*.md")):
        if doc.exists():
            check_links(doc)

    # --- the class's lab starts as the plan says (the plan: no cambies --open-duration-s ni --workers)
    start = r"LAB_ADMIN_TOKEN=\S+ (?:deploy/classroom|bash \.ci/up)\b[^`#\n]*"
    plan_path = ROOT / "docs" / "clase" / "plan.md"
    plan_starts = {" ".join(c.split()) for c in re.findall(start, plan_path.read_text(encoding="utf-8"))} \
        if plan_path.exists() else set()
    check(bool(plan_starts) and not any(f in c for c in plan_starts for f in ("--open-duration-s", "--workers")),
          f"docs/clase/plan.md starts the class's lab at the defaults ({sorted(plan_starts)})")
    for doc in [readme_path] + docs:
        for command in re.findall(start, doc.read_text(encoding="utf-8")):
            command = " ".join(command.split())
            check(command in plan_starts,
                  f"{doc.relative_to(ROOT)} starts the class's lab as docs/clase/plan.md does: {command}")

    # --- the teacher's kit
    clase = ROOT / "docs" / "clase"
    for name in ("plan.md", "hoja.md", "respuestas.md", "problemas.md", "reto.md"):
        doc = clase / name
        check(doc.exists(), f"docs/clase/{name} exists")
        if not doc.exists():
            continue
        english, bad = spanish_problems(doc)
        check(not english, f"docs/clase/{name}: no English sentence ({english[:3]})")
        check(not bad, f"docs/clase/{name}: none of the glossary's forbidden words ({bad})")
    # --- the lessons, one per scenario and one per overload policy, each with its twin
    lessons = ROOT / "docs" / "lessons"
    spanish = sorted(d for d in lessons.glob("*.md") if not d.name.endswith(".en.md"))
    for doc in spanish:
        twin = doc.with_name(doc.stem + ".en.md")
        check(twin.exists(), f"docs/lessons/{doc.name} has its English twin {twin.name}")
        check_links(doc)
        if twin.exists():
            check_links(twin)
        english, bad = spanish_problems(doc, OVERLOAD_FORBIDDEN)
        check(not english, f"docs/lessons/{doc.name}: no English sentence ({english[:3]})")
        check(not bad, f"docs/lessons/{doc.name}: one Spanish term per concept, none of {bad}")
    for index, suffix in (("README.md", ".md"), ("README.en.md", ".en.md")):
        text = (lessons / index).read_text(encoding="utf-8")
        unlinked = [d.stem + suffix for d in spanish if d.name != "README.md" and f"]({d.stem}{suffix})" not in text]
        check(not unlinked, f"docs/lessons/{index} links every lesson (missing: {unlinked})")

    plan = (clase / "plan.md").read_text(encoding="utf-8") if (clase / "plan.md").exists() else ""
    check("90" in plan and "/class" in plan and "Grafana" in plan,
          "plan.md: 90 minutes, and when to open /class and Grafana")
    hoja = (clase / "hoja.md").read_text(encoding="utf-8") if (clase / "hoja.md").exists() else ""
    check(all(v in hoja for v in ("LAB=", "YO=", "CLAVE=")), "hoja.md: the three variables LAB, YO, CLAVE")
    check("Práctica" in hoja and "Demostración del profesor" in hoja, "hoja.md: steps marked Práctica / Demostración del profesor")
    check("Lo que verás" not in hoja and "____" in hoja, "hoja.md: blanks for predictions, no answers")
    respuestas = (clase / "respuestas.md").read_text(encoding="utf-8") if (clase / "respuestas.md").exists() else ""
    check("Lo que verás:" in respuestas, "respuestas.md: the results heading «Lo que verás:»")
    problemas = (clase / "problemas.md").read_text(encoding="utf-8") if (clase / "problemas.md").exists() else ""
    for must in ("--host 0.0.0.0", "--allowed-hosts", "curl.exe", "podman run", "CLAVE", "HAProxy"):
        check(must in problemas, f"problemas.md covers {must}")


if __name__ == "__main__":
    main()
    sys.exit(1 if failures else 0)
