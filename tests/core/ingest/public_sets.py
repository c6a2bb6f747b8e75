"""SVAMP- and ASDiv-shaped seed records, written for the tests (not copied from the sets).

SVAMP (a JSON array): ID, Body (often ending in an open "If ..." clause with no full stop),
Question, Equation ("( 4.0 - 3.0 )"), Answer (a float), Type.
ASDiv (the XML's fields as JSON or CSV): ID, Grade, Body, Question, Solution-Type, Answer
with its unit in parentheses ("9 (apples)"), Formula with its result ("7+2=9").
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

SVAMP: list[dict[str, Any]] = [
    {"ID": "sv-1", "Body": "Dan had $ 3 left with him after he bought a candy bar. If he had $ 4 at the start",
     "Question": "How much did the candy bar cost?", "Equation": "( 4.0 - 3.0 )", "Answer": 1.0,
     "Type": "Subtraction"},
    {"ID": "sv-2", "Body": "Each pack of dvds costs 76 dollars. If there is a discount of 25 dollars on each pack",
     "Question": "How much do you have to pay to buy 3 packs?", "Equation": "( ( 76.0 - 25.0 ) * 3.0 )",
     "Answer": 153.0, "Type": "Common-Division"},
    {"ID": "sv-3", "Body": "Paco had 26 cookies. He ate 9 of them and then he bought 14 more cookies",
     "Question": "How many cookies did Paco have left?", "Equation": "( ( 26.0 - 9.0 ) + 14.0 )",
     "Answer": 31.0, "Type": "Addition"},
    {"ID": "sv-4", "Body": "A waiter had 14 customers. 3 customers left and then 39 more customers came in.",
     "Question": "How many customers does the waiter have now?", "Equation": "( ( 14.0 - 3.0 ) + 39.0 )",
     "Answer": 50.0, "Type": "Addition"},
    {"ID": "sv-5", "Body": "Robin has 28 packages of gum and 14 packages of candy. There are 6 pieces in each package.",
     "Question": "How many pieces does Robin have?", "Equation": "( ( 28.0 + 14.0 ) * 6.0 )",
     "Answer": 252.0, "Type": "Multiplication"},
    {"ID": "sv-6", "Body": "Jake has 8 fewer peaches than Steven. Steven has 15 peaches. Jill has 6 peaches more than Jake",
     "Question": "How many peaches does Jill have?", "Equation": "( ( 15.0 - 8.0 ) + 6.0 )",
     "Answer": 13.0, "Type": "Addition"},
    {"ID": "sv-7", "Body": "There are 96 oranges in a box. If they are shared equally among 8 children and each child eats 3",
     "Question": "How many oranges does each child have left?", "Equation": "( ( 96.0 / 8.0 ) - 3.0 )",
     "Answer": 9.0, "Type": "Common-Division"},
    {"ID": "sv-8", "Body": "Mary is baking a cake. The recipe calls for 12 cups of flour and 5 cups of sugar. "
                           "She already put in 4 cups of flour",
     "Question": "How many more cups of flour does she need to add?", "Equation": "( 12.0 - 4.0 )",
     "Answer": 8.0, "Type": "Subtraction"},
    {"ID": "sv-9", "Body": "Allan brought 5 balloons and Jake brought 4 balloons to the park. Allan then bought 3 more "
                           "balloons at the park.",
     "Question": "How many balloons did Allan and Jake have in the park?", "Equation": "( ( 5.0 + 4.0 ) + 3.0 )",
     "Answer": 12.0, "Type": "Addition"},
    {"ID": "sv-10", "Body": "Baker made 43 cakes and 114 pastries. If he sold 154 pastries and 78 cakes",
     "Question": "How many more pastries than cakes did baker sell?", "Equation": "( 154.0 - 78.0 )",
     "Answer": 76.0, "Type": "Subtraction"},
    {"ID": "sv-11", "Body": "The school has 8 classes with 24 students in each class. 17 students are absent today",
     "Question": "How many students are at school today?", "Equation": "( ( 8.0 * 24.0 ) - 17.0 )",
     "Answer": 175.0, "Type": "Subtraction"},
    {"ID": "sv-12", "Body": "A book has 3 chapters. The first chapter is 35 pages long and the second is 18 pages long. "
                            "The whole book has 94 pages",
     "Question": "How many pages does the third chapter have?", "Equation": "( ( 94.0 - 35.0 ) - 18.0 )",
     "Answer": 41.0, "Type": "Subtraction"},
    {"ID": "sv-13", "Body": "Edward spent $ 16 on books and $ 8 on pens. Now he has $ 19",
     "Question": "How much did Edward have before he spent his money?", "Equation": "( ( 16.0 + 8.0 ) + 19.0 )",
     "Answer": 43.0, "Type": "Addition"},
    {"ID": "sv-14", "Body": "The answer is already here.", "Question": "How many apples are there if there are 8?",
     "Equation": "8.0", "Answer": 8.0, "Type": "Addition"},
]

ASDIV: list[dict[str, Any]] = [
    {"ID": "nluds-1", "Grade": "1", "Body": "Seven red apples and two green apples are in the basket.",
     "Question": "How many apples are in the basket?", "Solution-Type": "Addition", "Answer": "9 (apples)",
     "Formula": "7+2=9"},
    {"ID": "nluds-2", "Grade": "2", "Body": "Ellen has 6 more balls than Marin. Marin has 9 balls. "
                                           "Ellen gives 5 balls to her sister.",
     "Question": "How many balls does Ellen have now?", "Solution-Type": "Addition", "Answer": "10 (balls)",
     "Formula": "9+6-5=10"},
    {"ID": "nluds-3", "Grade": "3", "Body": "A bookshelf has 4 shelves. Each shelf holds 12 books. 7 books are "
                                           "taken out.",
     "Question": "How many books are on the bookshelf now?", "Solution-Type": "Multiplication",
     "Answer": "41 (books)", "Formula": "4*12-7=41"},
    {"ID": "nluds-4", "Grade": "2", "Body": "Tom bought 3 packs of stickers with 8 stickers in each pack and "
                                           "got 5 more stickers from a friend.",
     "Question": "How many stickers does Tom have?", "Solution-Type": "Multiplication",
     "Answer": "29 (stickers)", "Formula": "3*8+5=29"},
    {"ID": "nluds-5", "Grade": "4", "Body": "A farmer has 120 eggs. He puts them in boxes of 12 and sells 4 boxes.",
     "Question": "How many boxes are left?", "Solution-Type": "Common-Division", "Answer": "6 (boxes)",
     "Formula": "120/12-4=6"},
    {"ID": "nluds-6", "Grade": "3", "Body": "A rope is 45 meters long. Sam cuts off 12 meters and then 9 meters.",
     "Question": "How long is the rope now?", "Solution-Type": "Subtraction", "Answer": "24 (meters)",
     "Formula": "45-12-9=24"},
    {"ID": "nluds-7", "Grade": "5", "Body": "A class collected $ 56 on Monday and $ 38 on Tuesday. They share "
                                           "the money equally among 4 charities.",
     "Question": "How much does each charity get?", "Solution-Type": "Common-Division",
     "Answer": "23.5 (dollars)", "Formula": "(56+38)/4=23.5"},
    {"ID": "nluds-8", "Grade": "1", "Body": "There are 5 birds on a tree. 3 more birds come.",
     "Question": "How many birds are on the tree now?", "Solution-Type": "Addition", "Answer": "8 (birds)",
     "Formula": "5+3=8"},
    {"ID": "nluds-9", "Grade": "4", "Body": "Jill has 17 marbles. She puts them into bags of 5.",
     "Question": "How many bags can she fill and how many marbles are left?", "Solution-Type": "Floor-Division",
     "Answer": "3 (bags) r 2 (marbles)", "Formula": "17/5=3 r 2"},
    {"ID": "nluds-10", "Grade": "6", "Body": "A map uses a scale of 1 cm for 25 km. Two towns are 7 cm apart on "
                                            "the map and a road adds 15 km to the straight distance.",
     "Question": "How long is the road between the towns?", "Solution-Type": "Multiplication",
     "Answer": "190 (km)", "Formula": "7*25+15=190"},
]


def write_svamp(path: Path, records: list[dict[str, Any]] | None = None) -> Path:
    """SVAMP's shape: one JSON array, pretty-printed."""
    path.write_text(json.dumps(SVAMP if records is None else records, indent=4), encoding="utf-8")
    return path


def write_asdiv_json(path: Path) -> Path:
    path.write_text(json.dumps(ASDIV, indent=2), encoding="utf-8")
    return path


def write_asdiv_csv(path: Path) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(ASDIV[0]))
        w.writeheader()
        w.writerows(ASDIV)
    return path
