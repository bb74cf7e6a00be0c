#!/usr/bin/env python3
"""Writes fixtures/formats/aider-llm-history/*.aider.llm.history the way Aider does.

Follows Aider-AI/aider (Apache-2.0) at 5dc9490b: InputOutput.log_llm_history (aider/io.py),
format_messages / format_content (aider/utils.py), Coder.send (aider/coders/base_coder.py);
texts from aider/coders/editblock_prompts.py and base_prompts.py (trimmed). Run from the
repository root: python3 tests/it/aider_fixtures.py
"""
import os

OUT = "fixtures/formats/aider-llm-history"

SYS = """Act as an expert software developer.
Always use best practices when coding.
Respect and use existing conventions, libraries, etc that are already present in the code base.

Take requests for changes to the supplied code.
If the request is ambiguous, ask questions.

Once you understand the request you MUST:

1. Decide if you need to propose *SEARCH/REPLACE* edits to any files that haven't been added to the chat. You can create new files without asking!

2. Think step-by-step and explain the needed changes in a few short sentences.

3. Describe each change with a *SEARCH/REPLACE block* per the examples below.

All changes to files must use this *SEARCH/REPLACE block* format.
ONLY EVER RETURN CODE IN A *SEARCH/REPLACE BLOCK*!"""
REPO = """Here are summaries of some files present in my git repository.
Do not propose changes to these files, treat them as *read-only*.
If you need to edit any of these files, ask me to *add them to the chat* first.

mathweb/__init__.py

mathweb/flask/app.py:
⋮
│def get_factorial(self, n):
⋮
│def get_fibonacci(self, n):
⋮

tests/test_app.py:
⋮
│def test_factorial():
⋮"""
REPO_OK = "Ok, I won't try and edit those files without asking first."
FILES = """I have *added these files to the chat* so you can go ahead and edit them.

*Trust this message as the true contents of these files!*
Any other messages in the chat may contain outdated versions of the files' contents.

mathweb/flask/app.py
```
from flask import Flask

app = Flask(__name__)


def get_factorial(self, n):
    "compute factorial"

    if n == 0:
        return 1
    else:
        return n * get_factorial(self, n - 1)
```"""
FILES_OK = "Ok, any changes I propose will be to those files."
U1 = "Change get_factorial() to use math.factorial"
A1 = """To make this change we need to modify `mathweb/flask/app.py` to:

1. Import the math package.
2. Remove the existing factorial() function.
3. Update get_factorial() to call math.factorial instead.

Here are the *SEARCH/REPLACE* blocks:

mathweb/flask/app.py
```python
<<<<<<< SEARCH
from flask import Flask
=======
import math
from flask import Flask
>>>>>>> REPLACE
```"""
REFLECT = """# 1 SEARCH/REPLACE block failed to match!

## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in mathweb/flask/app.py
<<<<<<< SEARCH
    if n == 0:
        return 1
=======
    return math.factorial(n)
>>>>>>> REPLACE

The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc"""
A2 = """I see, the indentation was off. Here is the corrected block:

mathweb/flask/app.py
```python
<<<<<<< SEARCH
    if n == 0:
        return 1
    else:
        return n * get_factorial(self, n - 1)
=======
    return math.factorial(n)
>>>>>>> REPLACE
```"""
A3 = "The change is in place: `get_factorial()` now calls `math.factorial`."
COMMIT = "I committed the changes with git hash 3f2a1b9 & commit msg: refactor: Use math.factorial in get_factorial"


def format_content(role, content):  # aider/utils.py
    return "\n".join(f"{role} {line}" for line in content.splitlines())


def format_messages(messages):  # aider/utils.py, no title
    output = []
    for msg in messages:
        output.append("-------")
        role = msg["role"].upper()
        content = msg.get("content")
        if isinstance(content, list):
            for item in content:
                if isinstance(item, dict):
                    for key, value in item.items():
                        if isinstance(value, dict) and "url" in value:
                            output.append(f"{role} {key.capitalize()} URL: {value['url']}")
                        else:
                            output.append(f"{role} {key}: {value}")
                else:
                    output.append(f"{role} {item}")
        elif isinstance(content, str):
            output.append(format_content(role, content))
    return "\n".join(output)


def log_llm_history(f, role, content, timestamp):  # aider/io.py
    f.write(f"{role.upper()} {timestamp}\n")
    f.write(content + "\n")


def m(role, content):
    return dict(role=role, content=content)


def write(name, reqs):
    with open(os.path.join(OUT, name), "w", encoding="utf-8", newline="\n") as f:
        for i, (msgs, reply) in enumerate(reqs):
            log_llm_history(f, "TO LLM", format_messages(msgs), f"2025-03-14T09:{26 + i:02d}:53")
            log_llm_history(f, "LLM RESPONSE", format_content("ASSISTANT", reply), f"2025-03-14T09:{26 + i:02d}:58")


base = [m("system", SYS), m("user", REPO), m("assistant", REPO_OK), m("user", FILES), m("assistant", FILES_OK)]
# ChatChunks.add_cache_control: the last message of a cached chunk as one text part with the marker.
cached_files = dict(role="user", content=[{"type": "text", "text": FILES, "cache_control": {"type": "ephemeral"}}])
r1 = base + [m("user", U1)]
r2 = base + [m("user", U1), m("assistant", A1), m("user", REFLECT)]
r3 = base[:3] + [cached_files, base[4]] + [m("user", U1), m("assistant", A1), m("user", REFLECT), m("assistant", A2), m("user", COMMIT)]

write("clean.aider.llm.history", [(r1, A1), (r2, A2), (r3, A3)])
write("dropped-system-prompt.aider.llm.history", [(r1, A1), (r2[1:], A2)])
write("duplicate-context-block.aider.llm.history", [(base + [m("user", REPO), m("assistant", REPO_OK), m("user", U1)], A1)])
edited = base + [m("user", U1), m("assistant", A1.replace("Import the math package.", "Import math.")), m("user", REFLECT), m("assistant", A2), m("user", COMMIT)]
write("history-rewrite.aider.llm.history", [(r1, A1), (r2, A2), (edited, A3)])
write("duplicate-system-prompt.aider.llm.history", [([m("system", SYS)] + base + [m("user", U1)], A1)])

# A longer session as Aider really sends it (Coder.format_chat_chunks, ChatChunks.all_messages):
# the system_reminder is appended to the main system prompt *and* sent again at the end, as a
# last system message (Model.reminder == "sys") or after the last user message's text
# (reminder == "user"); the chat files come after the done messages, so they move down as the
# history grows; an applied edit changes the chat files and adds the commit note and "Ok." to
# the done messages (Coder.move_back_cur_messages).
REMINDER = """# *SEARCH/REPLACE block* Rules:

Every *SEARCH/REPLACE block* must use this format:
1. The *FULL* file path alone on a line, verbatim. No bold asterisks, no quotes around it, no escaping of characters, etc.
2. The opening fence and code language, eg: ```python
3. The start of search block: <<<<<<< SEARCH
4. A contiguous chunk of lines to search for in the existing source code
5. The dividing line: =======
6. The lines to replace into the source code
7. The end of the replace block: >>>>>>> REPLACE
8. The closing fence: ```

Use the *FULL* file path, as shown to you by the user.

Every *SEARCH* section must *EXACTLY MATCH* the existing file content, character for character, including all comments, docstrings, etc.

Only create *SEARCH/REPLACE* blocks for files that the user has added to the chat!

ONLY EVER RETURN CODE IN A *SEARCH/REPLACE BLOCK*!
"""
MAIN_SYS = SYS + "\n" + REMINDER
FILES_V2 = FILES.replace('from flask import Flask\n', 'import math\nfrom flask import Flask\n').replace(
    '    if n == 0:\n        return 1\n    else:\n        return n * get_factorial(self, n - 1)', '    return math.factorial(n)')
COMMIT_OK = "Ok."
U2 = "Add a docstring to get_fibonacci"
A4 = """mathweb/flask/app.py
```python
<<<<<<< SEARCH
def get_factorial(self, n):
=======
def get_factorial(self, n):
    \"\"\"Return n!\"\"\"
>>>>>>> REPLACE
```"""


def session(mode, edit=False):
    head = [m("system", MAIN_SYS), m("user", REPO), m("assistant", REPO_OK)]

    def cur(msgs):
        if mode == "sys":
            return msgs + [m("system", REMINDER)]
        *rest, last = msgs
        return rest + [m(last["role"], last["content"] + "\n\n" + REMINDER)]

    files1 = [m("user", FILES), m("assistant", FILES_OK)]
    files2 = [m("user", FILES_V2), m("assistant", FILES_OK)]
    a1 = A1.replace("Import the math package.", "Import math.") if edit else A1
    done1 = [m("user", U1), m("assistant", a1), m("user", REFLECT), m("assistant", A2), m("user", COMMIT), m("assistant", COMMIT_OK)]
    return [
        (head + files1 + cur([m("user", U1)]), A1),
        (head + files1 + cur([m("user", U1), m("assistant", A1), m("user", REFLECT)]), A2),
        (head + done1 + files2 + cur([m("user", U2)]), A4),
    ]


write("reminder-sys.aider.llm.history", session("sys"))
write("reminder-user.aider.llm.history", session("user"))
# The same session with a real rewrite: request 2 re-sends the first reply edited.
write("history-rewrite-reminder.aider.llm.history", session("user", edit=True))

# Few-shot examples (Coder.format_chat_chunks: the edit format's example_messages and the pair
# that ends them, sent after the system prompt when the model does not take them in the system
# message), a repo map made again when a file is added to the chat (get_repo_messages: the map
# leaves out the chat files), and a chat cleared with /clear (done messages dropped): the fixed
# examples would otherwise make every request seem to continue every earlier one.
EXAMPLES = [
    m("user", "Change get_factorial() to use math.factorial"),
    m("assistant", "To make this change we need to modify `mathweb/flask/app.py` to:\n\n1. Import the math package.\n2. Remove the existing factorial() function.\n3. Update get_factorial() to call math.factorial instead."),
    m("user", "Refactor hello() into its own file."),
    m("assistant", "To make this change we need to modify `main.py` and make a new file `hello.py`:\n\n1. Make a new hello.py file with hello() in it.\n2. Remove hello() from main.py and replace it with an import."),
    m("user", "I switched to a new code base. Please don't consider the above files or try to edit them any longer."),
    m("assistant", "Ok."),
]
NO_FILES = """Don't try and edit any existing code without asking me to add the files to the chat!
Tell me which files in my repo are the most likely to **need changes** to solve the requests I make, and then stop so I can add them to the chat.
Only include the files that are most likely to actually need to be edited.
Don't include files that might contain relevant context, just files that will need to be changed."""
NO_FILES_OK = "Ok, based on your requests I will suggest which files need to be edited and then stop and wait for your approval."
REPO_2 = REPO.split("\n\nmathweb/flask/app.py:")[0] + "\n\ntests/test_app.py:\n⋮\n│def test_factorial():\n⋮"
ASK = "To make this change `mathweb/flask/app.py` will need changes. Please add it to the chat."
U0 = "Make get_factorial() use the standard library"
U3 = "Add a docstring to get_fibonacci"
U1B = "Now make the change"


def examples_session(edit=False):
    sys_ = [m("system", SYS)]
    r1 = sys_ + EXAMPLES + [m("user", REPO), m("assistant", REPO_OK), m("user", NO_FILES), m("assistant", NO_FILES_OK), m("user", U0)]
    done = [m("user", U0), m("assistant", ASK)]
    r2 = sys_ + EXAMPLES + [m("user", REPO_2), m("assistant", REPO_OK)] + done + [m("user", FILES), m("assistant", FILES_OK), m("user", U1B)]
    if edit:
        # The first reply re-sent edited: a rewrite, examples or not.
        done3 = [m("user", U0), m("assistant", ASK.replace("will need changes", "needs changes")), m("user", U1B), m("assistant", A1)]
        r3 = sys_ + EXAMPLES + [m("user", REPO_2), m("assistant", REPO_OK)] + done3 + [m("user", FILES), m("assistant", FILES_OK), m("user", U3)]
    else:
        # After /clear: no done messages.
        r3 = sys_ + EXAMPLES + [m("user", REPO_2), m("assistant", REPO_OK), m("user", FILES), m("assistant", FILES_OK), m("user", U3)]
    return [(r1, ASK), (r2, A1), (r3, A4)]


write("examples-map-refresh-clear.aider.llm.history", examples_session())
write("history-rewrite-examples.aider.llm.history", examples_session(edit=True))
